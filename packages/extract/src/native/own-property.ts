/**
 * Sets `record[key]` as an own, enumerable property: a key the model wrote (`__proto__`
 * included) is a key of the arguments, never a change of the object's prototype.
 */
export function setOwn(record: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(record, key, { value, enumerable: true, writable: true, configurable: true });
}
