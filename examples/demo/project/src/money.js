/** Rounds to whole cents, avoiding binary floating-point drift. */
export function roundCents(amount) {
  return Math.round((amount + Number.EPSILON) * 100) / 100;
}

/** Formats an amount as dollars, e.g. 12.5 → "$12.50". */
export function formatPrice(amount) {
  return `$${roundCents(amount).toFixed(2)}`;
}
