// Characters that never belong in a name, a path or a URL as this service reads them.

/** A C0 control character or DEL. */
export const isControlCode = (code: number): boolean => code <= 0x1f || code === 0x7f;

/** A C1 control character (U+0080–U+009F): invisible, and never part of a name. */
export const isC1Control = (code: number): boolean => code >= 0x80 && code <= 0x9f;

/**
 * A bidirectional formatting character: the Arabic letter mark U+061C, the marks U+200E/U+200F,
 * the embeddings and overrides U+202A–U+202E, the isolates U+2066–U+2069. Invisible, and able to
 * make a name read as another (`invoice\u202Efdp.exe` shows as `invoiceexe.pdf`).
 */
export const isBidiFormatting = (code: number): boolean =>
  code === 0x061c ||
  code === 0x200e ||
  code === 0x200f ||
  (code >= 0x202a && code <= 0x202e) ||
  (code >= 0x2066 && code <= 0x2069);

/** Whether `text` holds a control character other than those in `allowed`. */
export function hasControlCharacter(text: string, allowed = ""): boolean {
  for (let i = 0; i < text.length; i++) {
    if (isControlCode(text.charCodeAt(i)) && !allowed.includes(text.charAt(i))) return true;
  }
  return false;
}
