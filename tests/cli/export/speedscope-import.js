// speedscope's Trace Event Format importer, run in node: its browser
// bundle is evaluated in a bare context with a hook that exposes the
// importer and calls every lazy module initializer first
const fs = require('fs'), vm = require('vm');
const src = fs.readFileSync(process.argv[2], 'utf8');
const imp = /Importing as Trace Event Format profile"\),(\w+)\(/.exec(src);
const lazy = /var (\w+)=\(t,e\)=>\(\)=>\(t&&\(e=t\(t=0\)\),e\)/.exec(src);
if (!imp || !lazy) { console.log('importer not found in the bundle'); process.exit(3); }
const inits = [...src.matchAll(new RegExp('(\\w+)=' + lazy[1] + '\\(\\(\\)=>', 'g'))].map((m) => m[1]);
const hook = 'globalThis.__tef=(p)=>{for(const f of [' + inits.join(',') + '])try{f()}catch(e){}return ' + imp[1] + '(p)};';
const hooked = src.replace('(()=>{', '(()=>{' + hook);
const el = new Proxy(function () {}, { get: (t, k) => k === Symbol.toPrimitive ? () => '' : el, apply: () => el, construct: () => el });
const ctx = { console: { log() {}, warn: (...a) => console.log('warning:', ...a), error() {} },
  window: el, document: el, navigator: { userAgent: 'node' }, location: el, localStorage: el,
  setTimeout, clearTimeout, requestAnimationFrame() {}, URL, TextDecoder, TextEncoder };
vm.createContext(ctx);
ctx.globalThis = ctx;
try { vm.runInContext(hooked, ctx); } catch (e) { /* the UI part needs a DOM */ }
if (!ctx.__tef) { console.log('hook not set'); process.exit(3); }
const prof = ctx.__tef(JSON.parse(fs.readFileSync(process.argv[3], 'utf8')));
for (const p of prof.profiles) {
  const names = [];
  p.forEachCall((n) => names.push(n.frame.name), () => {});
  console.log(p.getName() + ': ' + names.join(' '));
}
