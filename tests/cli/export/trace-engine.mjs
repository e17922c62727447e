// trace-engine.mjs NODE_MODULES FILE: Chrome DevTools' trace engine
// (npm @paulirish/trace_engine) parses FILE; prints each thread of its
// renderer model with the names of its calls, in order
import fs from 'node:fs';

// the engine needs the browser's DOMRect (its README says so)
globalThis.DOMRect = class {
	constructor(x, y, w, h) { Object.assign(this, { x, y, width: w, height: h }); }
};
const Trace = await import(process.argv[2] + '/@paulirish/trace_engine/models/trace/trace.js');
const json = JSON.parse(fs.readFileSync(process.argv[3], 'utf8'));
const model = Trace.TraceModel.Model.createWithAllHandlers();
await model.parse(json.traceEvents);
const data = model.parsedTrace().data;
for (const [, proc] of data.Renderer.processes)
	for (const [, thread] of proc.threads)
		console.log('thread ' + thread.name + ': ' + thread.entries.map((e) => e.name).join(' '));
