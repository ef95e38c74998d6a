// Bundle src/ into ../prime_nb/static/widget.js + widget.css (ESM, for anywidget), and the
// family view (src/family/) into ../prime_nb/static/family.js + family.css, its own bundle.
// `node build.mjs --watch` rebuilds on change (use with ANYWIDGET_HMR=1 in the kernel).
import * as esbuild from "esbuild";
import { readFileSync } from "node:fs";

const watch = process.argv.includes("--watch");
const outfile = "../prime_nb/static/widget.js";
const familyOutfile = "../prime_nb/static/family.js";

/** The bundle is inlined into exported HTML: "<script" would open a nested script state there
 * and "</script" would end it early, so neither may appear. */
const checkInlineSafe = (file) => ({
  name: "check-inline-safe",
  setup(build) {
    build.onEnd((result) => {
      if (result.errors.length) return;
      const js = readFileSync(file, "utf8");
      for (const bad of [/<script/i, /<\/script/i]) {
        if (bad.test(js)) {
          console.error(`bundle contains ${bad}: it could not be inlined safely`);
          if (!watch) process.exit(1);
        }
      }
    });
  },
});

const options = {
  entryPoints: ["src/index.ts"],
  bundle: true,
  format: "esm",
  target: ["es2020"],
  outfile,
  minify: !watch,
  sourcemap: watch ? "inline" : false,
  charset: "ascii",
  legalComments: "none",
  logLevel: "info",
  plugins: [checkInlineSafe(outfile)],
};
const family = {
  ...options,
  entryPoints: ["src/family/index.ts"],
  outfile: familyOutfile,
  plugins: [checkInlineSafe(familyOutfile)],
};

if (watch) {
  for (const config of [options, family]) {
    const ctx = await esbuild.context(config);
    await ctx.watch();
  }
} else {
  await Promise.all([esbuild.build(options), esbuild.build(family)]);
}
