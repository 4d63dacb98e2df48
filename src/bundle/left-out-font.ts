// pdf-lib's standard fonts the PDF export does not use (src/services/content/pdf-layout.ts embeds
// Helvetica in four styles and Courier): wrangler.toml's [alias] points @pdf-lib/standard-fonts'
// imports of their compressed metrics here, which leaves about 60 KB of incompressible data out of
// the Worker's bundle. Embedding one of them would fail to decompress this empty string.

export default "";
