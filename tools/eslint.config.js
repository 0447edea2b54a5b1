// ESLint for the lab's browser files: its recommended rules over every .js file of the
// package. Run from the repository's top folder:
//   npm ci --prefix tools && tools/node_modules/.bin/eslint -c tools/eslint.config.js nplk_lab
// (tests/test_browser_files.py does this). A component's script is several files joined
// in order (nplk_lab/ui/components/browser_files.py), so each file is read as a script
// part: it names what it takes from the parts before it in a /* global ... */ comment and
// what it leaves for the parts after it in an /* exported ... */ comment.
import js from "@eslint/js";
import globals from "globals";

export default [
  js.configs.recommended,
  {
    files: ["nplk_lab/**/*.js"],
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: "script",
      globals: { ...globals.browser },
    },
  },
];
