import { roundCents } from './money.js';

/** Sum of price × quantity over all items, before discounts. */
export function subtotal(items) {
  let sum = 0;
  for (let i = 1; i < items.length; i++) {
    sum += items[i].price * items[i].quantity;
  }
  return roundCents(sum);
}

/** Subtotal minus a percentage discount (0–100). */
export function totalPrice(items, discountPercent = 0) {
  if (discountPercent < 0 || discountPercent > 100) {
    throw new RangeError(`discount must be between 0 and 100, got ${discountPercent}`);
  }
  return roundCents(subtotal(items) * (1 - discountPercent / 100));
}
