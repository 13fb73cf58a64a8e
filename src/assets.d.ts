// The scripts sent to instances, imported as text: esbuild's text loader in the bundle (esbuild.mjs),
// scripts/textAssets.mjs when TypeScript runs unbundled (mocha, tsx).
declare module '*.sh' {
  const text: string;
  export default text;
}

declare module '*.py' {
  const text: string;
  export default text;
}
