// pako ships no types; pdf-lib depends on it, and test/bundle/pako.test.ts checks the production
// bundle's stand-in (src/bundle/pako.ts) against it. The two calls pdf-lib makes:
declare module "pako" {
  const pako: {
    deflate(data: Uint8Array): Uint8Array;
    inflate(data: Uint8Array): Uint8Array;
  };
  export default pako;
}
