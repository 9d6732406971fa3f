// Client libraries without type declarations: rt describes the parts it uses
// with its own small interfaces (OracleModuleLike, VerticaModuleLike, PgModules).
declare module "oracledb";
declare module "vertica-nodejs";
declare module "pg-cursor";
// turndown's GFM plugin ships no types: rt uses its `gfm` plugin function (web/htmlToMarkdown.ts).
declare module "turndown-plugin-gfm";
