// Builds the page into dist/: src/main.js and everything it imports into
// dist/assets/app.js, src/style.css into dist/assets/app.css, and
// src/index.html copied as is. The output is deterministic (no timestamps,
// no absolute paths, no source maps, no content hashes in names), so CI can
// rebuild and compare it with the committed dist/.
import * as esbuild from "esbuild";
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
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

const js = await esbuild.build({
  ...common,
  metafile: true,
  banner: { js: "/* PLD Workbench. Third-party code in this bundle and its licences: /assets/THIRD_PARTY_LICENSES.txt */" },
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

// The bundle carries third-party code (CodeMirror, Lezer and their small
// helpers, all MIT): their licence texts go beside it, one per package
// whose files went into app.js, in name order so the file is stable.
const pkgs = new Set();
for (const input of Object.keys(js.metafile.inputs)) {
  const m = input.match(/node_modules\/((?:@[^/]+\/)?[^/]+)\//);
  if (m) pkgs.add(m[1]);
}
const notices = [];
for (const name of [...pkgs].sort()) {
  const dir = join(root, "node_modules", name);
  const { version, license } = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
  const file = ["LICENSE", "LICENSE.md", "LICENSE.txt"].map((f) => join(dir, f)).find((f) => existsSync(f));
  if (!file) throw new Error(`${name}: no LICENSE file to ship with the bundle`);
  notices.push(`${name} ${version} (${license})\n\n${readFileSync(file, "utf8").trim()}\n`);
}
writeFileSync(join(assets, "THIRD_PARTY_LICENSES.txt"), notices.join("\n" + "-".repeat(72) + "\n\n"));
