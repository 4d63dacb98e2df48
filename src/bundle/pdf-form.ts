// pdf-lib's interactive forms (AcroForm fields and their appearances, about 40 KB of minified code):
// wrangler.toml's [alias] points pdf-lib's api/index.js (`export * from "./form"`) and
// api/PDFDocument.js (`import PDFForm from "./form/PDFForm"`) here. The PDF export
// (src/services/content/pdf.ts) creates a document and never asks for its form: PDFDocument reaches
// PDFForm only through getForm(), and save() updates the appearances of a form only once one was
// made. The pdf-lib names the service imports (PDFDocument, PageSizes, StandardFonts, rgb) are not
// forms. PDFForm.of would fail loudly on this stand-in.

export { default } from "./left-out";
