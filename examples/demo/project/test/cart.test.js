import { test } from 'node:test';
import assert from 'node:assert/strict';
import { subtotal, totalPrice } from '../src/cart.js';
import { formatPrice } from '../src/money.js';

const items = [
  { name: 'notebook', price: 4.5, quantity: 2 },
  { name: 'pen', price: 1.25, quantity: 4 },
];

test('subtotal adds every item', () => {
  assert.equal(subtotal(items), 14);
});

test('totalPrice applies the discount', () => {
  assert.equal(totalPrice(items, 10), 12.6);
});

test('totalPrice rejects a discount over 100', () => {
  assert.throws(() => totalPrice(items, 120), RangeError);
});

test('formatPrice shows two decimals', () => {
  assert.equal(formatPrice(12.5), '$12.50');
});
