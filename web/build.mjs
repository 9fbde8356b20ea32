// Builds the page into dist/: src/main.js and everything it imports into
// dist/assets/app.js, src/style.css into dist/assets/app.css, and
// src/index.html copied as is. The output is deterministic (no timestamps,
// no absolute paths, no source maps, no content hashes in names), so CI can
// rebuild and compare it with the committed dist/.
import * as esbuild from "esbuild";
import { copyFileSync, mkdirSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = dirname(fileURLToPath(import.meta.url));
const dist = join(root, "dist");
const assets = join(dist, "assets");

rmSync(assets, { recursive: true, force: true });
mkdirSync(assets, { recursive: true });

const common = {
  absWorkingDir: root,
  bundle: true,
  minify: true,
  sourcemap: false,
  legalComments: "none",
  logLevel: "warning",
  charset: "utf8",
};

await esbuild.build({
  ...common,
  entryPoints: ["src/main.js"],
  outfile: "dist/assets/app.js",
  format: "esm",
  target: ["es2020"],
});

await esbuild.build({
  ...common,
  entryPoints: ["src/style.css"],
  outfile: "dist/assets/app.css",
});

copyFileSync(join(root, "src", "index.html"), join(dist, "index.html"));
