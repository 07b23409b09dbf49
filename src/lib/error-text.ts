/** The text of anything thrown: an Error's message, anything else as `String` makes it. */
export function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
