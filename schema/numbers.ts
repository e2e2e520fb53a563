/**
 * How numbers go out on the wire (docs/api-keyed.md, "Numbers"): money in USD to the cent, prices to 6 significant
 * digits (a price of 0.0000020676901641786715 goes out as 0.00000206769). Server answers and the console's formatter
 * share these, so a figure reads the same everywhere.
 */

/** USD amounts (volumes, flows, values): to the cent. */
export const cents = (usd: number): number => Math.round(usd * 100) / 100

/** Prices: to 6 significant digits (any magnitude; 0 and non-finite values unchanged). */
export const priceDigits = (price: number): number => (price === 0 || !Number.isFinite(price) ? price : Number(price.toPrecision(6)))

/** `cents` / `priceDigits` of a value that may be absent. */
export const centsOrNull = (usd: number | null): number | null => (usd === null ? null : cents(usd))
export const priceOrNull = (price: number | null): number | null => (price === null ? null : priceDigits(price))
