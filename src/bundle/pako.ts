// pdf-lib's compression through fflate, which the service already bundles for zip exports:
// wrangler.toml's [alias] points pdf-lib's and @pdf-lib/standard-fonts' imports of pako here, so
// the Worker carries one DEFLATE implementation instead of two (pako is about 46 KB minified).
// pdf-lib calls exactly these two, on bytes: zlib-wrapped DEFLATE out (a FlateDecode stream), and
// in (the standard fonts' compressed metrics).
import { unzlibSync, zlibSync } from "fflate";

export default {
  deflate: (data: Uint8Array): Uint8Array => zlibSync(data),
  inflate: (data: Uint8Array): Uint8Array => unzlibSync(data),
};
