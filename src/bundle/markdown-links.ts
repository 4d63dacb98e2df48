// markdown-it's link helpers, left out of the Worker's bundle through wrangler.toml's [alias]:
// linkify-it (bare URLs found in text: services/content/markdown-tokens.ts turns `linkify` off) and
// punycode.js (host names encoded by markdown-it's default normalizeLink and normalizeLinkText, which
// that module replaces so that links are kept as written). markdown-it still builds a LinkifyIt in its
// constructor, so the class stands here; any use of either fails loudly.

function leftOut(): never {
  throw new Error("markdown-it's link helpers are left out of the Worker's bundle (src/bundle/markdown-links.ts)");
}

/** linkify-it's class: built by markdown-it's constructor, never asked (linkify is off). */
export class LinkifyIt {
  test = leftOut;
  match = leftOut;
  matchAtStart = leftOut;
}

/** punycode.js: markdown-it's default link normalizers call it; both are replaced. */
export default { toASCII: leftOut, toUnicode: leftOut };
