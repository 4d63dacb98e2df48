// Characters that never belong in a name, a path or a URL as this service reads them.

/** A C0 control character or DEL. */
export const isControlCode = (code: number): boolean => code <= 0x1f || code === 0x7f;

/** Whether `text` holds a control character other than those in `allowed`. */
export function hasControlCharacter(text: string, allowed = ""): boolean {
  for (let i = 0; i < text.length; i++) {
    if (isControlCode(text.charCodeAt(i)) && !allowed.includes(text.charAt(i))) return true;
  }
  return false;
}

/** A UTF-16 surrogate without its pair: not a character, and it cannot be written as UTF-8. */
export const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
