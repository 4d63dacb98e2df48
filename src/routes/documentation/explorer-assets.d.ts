// Bundled as text by the `Text` module rule in wrangler.toml.
declare module "swagger-ui-dist/swagger-ui-bundle.js" {
  const source: string;
  export default source;
}
declare module "swagger-ui-dist/swagger-ui.css" {
  const source: string;
  export default source;
}
