// SPDX-License-Identifier: MIT
/*
 * export_flame.c - `usertrace dump --flame-graph[=svg]`: the trace as a
 * flame graph.  Without an argument (or =folded) the folded stacks
 * (export/folded.h), one "main;run;compute N" line per distinct stack; with
 * =svg a standalone SVG file that a browser opens.
 *
 * N is the self time in ns of function_graph calls, or the number of
 * sysprof samples.  Threads are merged into one graph, as uftrace does.
 * The tree is built as events stream in and is bounded by the distinct
 * call paths; it is written at the end.
 *
 * The SVG: one <g class="f"> per frame, a <rect> whose width is its
 * share of the total and a <text> label cut to fit, the root ("all") at
 * the bottom and callees above their caller, in name order.  Frames under
 * 0.1% of the total are left out: thousands of invisible slivers would
 * only make the file slow to open.  An embedded script shows the frame
 * under the mouse in a details line ("compute (1234 ns, 12.34%)"), zooms
 * into a frame on click (its callers stay, full width and faded), and
 * searches (Ctrl-F or the Search button: a regular expression; matching
 * frames turn purple and the share of the total they cover is shown).
 * Each frame's <title> holds the same text, so the file reads without
 * the script too.  A link can open it zoomed or searched:
 * out.svg#zoom=NAME (the first frame of that name), out.svg#search=REGEX.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "export/export.h"
#include "export/folded.h"
#include "utils/utils.h"

#define SVG_WIDTH	1200
#define SVG_PAD		10		/* left and right margins */
#define SVG_TOP		56		/* title, buttons */
#define SVG_BOTTOM	34		/* details line */
#define SVG_FRAME_H	16
#define SVG_CHAR_W	7		/* of the 12px monospace labels, to cut them */
#define SVG_MIN_SHARE	1000		/* frames under total / 1000 (0.1%) are left out */

struct flame {
	struct folded *f;
	int svg;
};

static int flame_begin(struct export_ctx *x)
{
	struct flame *fl;

	if (x->arg && strcmp(x->arg, "svg") && strcmp(x->arg, "folded")) {
		pr_err("dump --flame-graph=%s: the formats are folded (the default) and svg", x->arg);
		return -1;
	}
	fl = xcalloc(1, sizeof(*fl));
	fl->svg = x->arg && !strcmp(x->arg, "svg");
	fl->f = folded_new(x->d, FOLDED_CALLS | FOLDED_SAMPLES);
	x->priv = fl;
	return 0;
}

static int flame_event(struct export_ctx *x, const struct ut_event *ev)
{
	struct flame *fl = x->priv;

	folded_event(fl->f, ev);
	return 0;
}

/*
 * @s as XML character data or attribute value.  The file says UTF-8: a
 * byte that does not start a valid sequence (a Latin-1 command line, a
 * name cut short) becomes U+FFFD, or the file would not be well-formed
 * and browsers would show an error instead of the graph; control
 * characters XML 1.0 cannot hold become '?'.
 */
static void xml_put(FILE *out, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;

	for (size_t i = 0; i < len && p[i];) {
		size_t n = ut_utf8_len(p + i, len - i);
		unsigned char c = p[i];

		if (!n) {
			fputs("\xef\xbf\xbd", out);	/* U+FFFD */
			i++;
			continue;
		}
		if (n > 1) {
			fwrite(p + i, 1, n, out);
			i += n;
			continue;
		}
		i++;
		switch (c) {
		case '&': fputs("&amp;", out); break;
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '"': fputs("&quot;", out); break;
		case '\'': fputs("&apos;", out); break;
		default: fputc(c < 0x20 ? '?' : c, out); break;
		}
	}
}

static void xml_puts(FILE *out, const char *s)
{
	xml_put(out, s, strlen(s));
}

/* a warm colour of its own for each name, the same in every graph */
static void frame_color(const char *name, char *buf, size_t size)
{
	uint64_t h = 0x9e3779b97f4a7c15ull;

	for (const char *p = name; *p; p++)
		h = (h ^ (unsigned char)*p) * 0x100000001b3ull;
	h ^= h >> 33;
	snprintf(buf, size, "rgb(%u,%u,%u)", 205 + (unsigned)(h % 51), 60 + (unsigned)((h >> 8) % 171),
		 (unsigned)((h >> 16) % 56));
}

/* the label of a frame @w px wide: the name, cut with ".." if it does not fit, or nothing */
static size_t label_len(const char *name, double w, int *cut)
{
	long fit = (long)((w - 6) / SVG_CHAR_W);
	size_t len = strlen(name);

	*cut = 0;
	if (fit < 3)
		return 0;
	if (len <= (size_t)fit)
		return len;
	*cut = 1;
	len = (size_t)fit - 2;
	/* never half a UTF-8 character: the file would not be well-formed */
	while (len && ((unsigned char)name[len] & 0xc0) == 0x80)
		len--;
	return len;
}

/*
 * a frame of @v is drawn when it is at least 1/SVG_MIN_SHARE of @total
 * (v * SVG_MIN_SHARE >= total, without its overflow: the totals of a
 * corrupt trace's times can be near 2^64)
 */
static int svg_shown(uint64_t v, uint64_t total)
{
	return v >= total / SVG_MIN_SHARE + (total % SVG_MIN_SHARE != 0);
}

static void svg_frame(FILE *out, const struct folded *f, const struct folded_node *n, uint32_t id,
		      uint64_t start, uint32_t maxdepth, uint64_t total, const char *unit)
{
	const char *name = id ? folded_name(f, n->name) : "all";
	double scale = (double)(SVG_WIDTH - 2 * SVG_PAD) / (double)total;
	double x = SVG_PAD + (double)start * scale, w = (double)n->total * scale;
	double y = SVG_TOP + (double)(maxdepth - n->depth) * SVG_FRAME_H;
	char color[32];
	size_t len;
	int cut;

	frame_color(name, color, sizeof(color));
	fprintf(out, "<g class=\"f\" data-s=\"%" PRIu64 "\" data-v=\"%" PRIu64 "\" data-d=\"%u\" data-n=\"",
		start, n->total, n->depth);
	xml_puts(out, name);
	fputs("\"><title>", out);
	xml_puts(out, name);
	fprintf(out, " (%" PRIu64 " %s, %.2f%%)</title>", n->total, unit,
		100.0 * (double)n->total / (double)total);
	fprintf(out, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%d\" fill=\"%s\" rx=\"2\"/>",
		x, y, w, SVG_FRAME_H - 1, color);
	fprintf(out, "<text x=\"%.2f\" y=\"%.1f\">", x + 3, y + SVG_FRAME_H - 4.5);
	len = label_len(name, w, &cut);
	xml_put(out, name, len);
	fprintf(out, "%s</text></g>\n", cut ? ".." : "");
}

/*
 * The script: frames are read back from their data-* attributes (start
 * and value in the unit of the graph, depth), so zooming is only a new
 * x scale.  Written for this file; the behaviour follows flamegraph.pl's.
 */
static const char svg_script[] =
"\"use strict\";\n"
"var W = %d, PAD = %d, CW = %d, UNIT = \"%s\";\n"
"var frames = [], total = 0, details, matched, unzoomBtn, searchRe = null;\n"
"function fmt(v) { return v.toString().replace(/\\B(?=(\\d{3})+(?!\\d))/g, \",\"); }\n"
"function pct(v) { return (100 * v / total).toFixed(2); }\n"
"function describe(fr) { return fr.n + \" (\" + fmt(fr.v) + \" \" + UNIT + \", \" + pct(fr.v) + \"%%)\"; }\n"
"function label(fr, w) {\n"
"  var fit = Math.floor((w - 6) / CW);\n"
"  if (fit < 3) return \"\";\n"
"  return fr.n.length <= fit ? fr.n : fr.n.substring(0, fit - 2) + \"..\";\n"
"}\n"
"function place(fr, x, w, faded) {\n"
"  fr.g.style.display = \"\";\n"
"  fr.rect.setAttribute(\"x\", x.toFixed(2));\n"
"  fr.rect.setAttribute(\"width\", w.toFixed(2));\n"
"  fr.text.setAttribute(\"x\", (x + 3).toFixed(2));\n"
"  fr.text.textContent = label(fr, w);\n"
"  fr.g.style.opacity = faded ? \"0.5\" : \"\";\n"
"}\n"
"function zoom(z) {\n"
"  var span = W - 2 * PAD;\n"
"  frames.forEach(function (fr) {\n"
"    if (fr.d < z.d && fr.s <= z.s && fr.s + fr.v >= z.s + z.v)\n"
"      place(fr, PAD, span, true);\n"
"    else if (fr.d >= z.d && fr.s >= z.s && fr.s + fr.v <= z.s + z.v)\n"
"      place(fr, PAD + (fr.s - z.s) * span / z.v, fr.v * span / z.v, false);\n"
"    else\n"
"      fr.g.style.display = \"none\";\n"
"  });\n"
"  unzoomBtn.style.opacity = z.d ? \"1\" : \"0.3\";\n"
"}\n"
"function search(term) {\n"
"  var spans = [], covered = 0, end = -1;\n"
"  try { searchRe = term ? new RegExp(term) : null; } catch (e) { alert(e.message); return; }\n"
"  frames.forEach(function (fr) {\n"
"    var hit = searchRe && searchRe.test(fr.n);\n"
"    fr.rect.setAttribute(\"fill\", hit ? \"rgb(225,0,225)\" : fr.fill);\n"
"    if (hit) spans.push([fr.s, fr.s + fr.v]);\n"
"  });\n"
"  /* callees of a matched frame are inside its span: count the union once */\n"
"  spans.sort(function (a, b) { return a[0] - b[0]; });\n"
"  spans.forEach(function (sp) {\n"
"    if (sp[1] <= end) return;\n"
"    covered += sp[1] - Math.max(sp[0], end);\n"
"    end = sp[1];\n"
"  });\n"
"  matched.textContent = searchRe ? \"Matched: \" + pct(covered) + \"%%\" : \"\";\n"
"}\n"
"function ask() {\n"
"  var term = prompt(\"Search for frames (a regular expression):\", searchRe ? searchRe.source : \"\");\n"
"  if (term !== null) search(term);\n"
"}\n"
"function frameOf(el) {\n"
"  while (el && el.getAttribute && el.getAttribute(\"class\") !== \"f\") el = el.parentNode;\n"
"  return el && el.fr ? el.fr : null;\n"
"}\n"
"function init() {\n"
"  var svg = document.documentElement;\n"
"  details = document.getElementById(\"details\");\n"
"  matched = document.getElementById(\"matched\");\n"
"  unzoomBtn = document.getElementById(\"unzoom\");\n"
"  Array.prototype.forEach.call(document.querySelectorAll(\"g.f\"), function (g) {\n"
"    var fr = { g: g, s: +g.getAttribute(\"data-s\"), v: +g.getAttribute(\"data-v\"),\n"
"               d: +g.getAttribute(\"data-d\"), n: g.getAttribute(\"data-n\"),\n"
"               rect: g.querySelector(\"rect\"), text: g.querySelector(\"text\") };\n"
"    fr.fill = fr.rect.getAttribute(\"fill\");\n"
"    g.fr = fr;\n"
"    frames.push(fr);\n"
"    if (!fr.d) total = fr.v;\n"
"  });\n"
"  svg.addEventListener(\"mouseover\", function (e) {\n"
"    var fr = frameOf(e.target);\n"
"    details.textContent = fr ? describe(fr) : \" \";\n"
"  });\n"
"  svg.addEventListener(\"click\", function (e) {\n"
"    var fr = frameOf(e.target);\n"
"    if (fr) zoom(fr);\n"
"  });\n"
"  unzoomBtn.addEventListener(\"click\", function () { if (frames.length) zoom(frames[0]); });\n"
"  document.getElementById(\"search\").addEventListener(\"click\", ask);\n"
"  window.addEventListener(\"keydown\", function (e) {\n"
"    if ((e.ctrlKey || e.metaKey) && e.key === \"f\") { e.preventDefault(); ask(); }\n"
"    else if (e.key === \"Escape\") search(\"\");\n"
"  });\n"
"  details.textContent = frames.length ? describe(frames[0]) : \"no data\";\n"
"  /* a link can open the graph zoomed or searched: FILE.svg#zoom=NAME, #search=REGEX */\n"
"  var h = /^#(zoom|search)=(.*)$/.exec(location.hash);\n"
"  if (h && h[1] === \"search\") search(decodeURIComponent(h[2]));\n"
"  if (h && h[1] === \"zoom\") frames.some(function (fr) {\n"
"    if (fr.n !== decodeURIComponent(h[2])) return false;\n"
"    zoom(fr);\n"
"    return true;\n"
"  });\n"
"}\n"
"window.addEventListener(\"load\", init);\n";

static void svg_write(FILE *out, struct export_ctx *x, const struct folded *f)
{
	const struct folded_node *nodes;
	size_t nr = folded_nodes(f, &nodes), sp = 0;
	uint64_t total = nodes[0].total;
	const char *unit = folded_kind(f) == FOLDED_SAMPLES ? "samples" : "ns";
	uint32_t maxdepth = 0;
	struct { uint32_t id; uint64_t start; } *stack;
	int height;

	for (size_t i = 0; i < nr; i++)
		if (total && svg_shown(nodes[i].total, total) && nodes[i].depth > maxdepth)
			maxdepth = nodes[i].depth;
	height = SVG_TOP + (int)(maxdepth + 1) * SVG_FRAME_H + SVG_BOTTOM;

	fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n");
	fprintf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%d\" "
		"height=\"%d\" viewBox=\"0 0 %d %d\">\n", SVG_WIDTH, height, SVG_WIDTH, height);
	fputs("<style>\n"
	      "text { font-family: monospace; font-size: 12px; fill: #000; }\n"
	      "g.f text { pointer-events: none; }\n"
	      "g.f:hover rect { stroke: #000; stroke-width: 0.5; cursor: pointer; }\n"
	      "#title { font-size: 17px; }\n"
	      ".button { fill: #2050a0; cursor: pointer; }\n"
	      "</style>\n", out);
	fputs("<defs><linearGradient id=\"bg\" x1=\"0\" y1=\"0\" x2=\"0\" y2=\"1\">"
	      "<stop offset=\"5%\" stop-color=\"#eeeeee\"/><stop offset=\"95%\" stop-color=\"#eeeeb0\"/>"
	      "</linearGradient></defs>\n", out);
	fprintf(out, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"url(#bg)\"/>\n",
		SVG_WIDTH, height);
	fprintf(out, "<text id=\"title\" x=\"%d\" y=\"24\" text-anchor=\"middle\">Flame Graph: ",
		SVG_WIDTH / 2);
	xml_puts(out, *x->d->cmdline ? x->d->cmdline : x->d->dir);
	fputs("</text>\n", out);
	fprintf(out, "<text x=\"%d\" y=\"42\" text-anchor=\"middle\" fill=\"#555\">%s, threads "
		"merged; frames under 0.1%% left out; click a frame to zoom</text>\n", SVG_WIDTH / 2,
		folded_kind(f) == FOLDED_SAMPLES ? "sysprof samples" :
		"function_graph self time in ns");
	fprintf(out, "<text id=\"unzoom\" class=\"button\" x=\"%d\" y=\"24\" "
		"style=\"opacity:0.3\">Reset Zoom</text>\n", SVG_PAD);
	fprintf(out, "<text id=\"search\" class=\"button\" x=\"%d\" y=\"24\" "
		"text-anchor=\"end\">Search</text>\n", SVG_WIDTH - SVG_PAD);
	fprintf(out, "<text id=\"details\" x=\"%d\" y=\"%d\"> </text>\n", SVG_PAD, height - 12);
	fprintf(out, "<text id=\"matched\" x=\"%d\" y=\"%d\" text-anchor=\"end\"></text>\n",
		SVG_WIDTH - SVG_PAD, height - 12);
	fputs("<script type=\"text/ecmascript\"><![CDATA[\n", out);
	fprintf(out, svg_script, SVG_WIDTH, SVG_PAD, SVG_CHAR_W, unit);
	fputs("]]></script>\n", out);

	/* depth first, without recursion: a recursive function makes deep trees */
	stack = xmalloc(nr * sizeof(*stack));
	if (total)
		stack[sp++].id = 0, stack[0].start = 0;
	while (sp) {
		uint32_t id = stack[--sp].id;
		uint64_t start = stack[sp].start, cs = start;

		svg_frame(out, f, &nodes[id], id, start, maxdepth, total, unit);
		for (uint32_t c = nodes[id].child; c; c = nodes[c].next) {
			if (svg_shown(nodes[c].total, total)) {
				stack[sp].id = c;
				stack[sp++].start = cs;
			}
			cs += nodes[c].total;
		}
	}
	free(stack);
	fputs("</svg>\n", out);
}

static int flame_end(struct export_ctx *x, int failed)
{
	struct flame *fl = x->priv;

	if (!fl)
		return 0;
	if (!failed) {
		folded_finish(fl->f);
		if (!folded_kind(fl->f))
			pr_warn("%s has no function_graph calls or sysprof samples: the flame graph is empty",
				x->d->dir);
		if (folded_ignored(fl->f))
			pr_warn("%" PRIu64 " %s left out: a flame graph counts either calls or samples",
				folded_ignored(fl->f),
				folded_kind(fl->f) == FOLDED_CALLS ? "samples" : "calls");
		if (fl->svg)
			svg_write(x->out, x, fl->f);
		else
			folded_write(fl->f, x->out);
	}
	folded_free(fl->f);
	free(fl);
	x->priv = NULL;
	return 0;
}

const struct export_writer export_flame = {
	.name = "flame-graph",
	.arg = 2,
	.arg_name = "svg",
	.help = "folded stacks; =svg: an SVG flame graph (self time or samples)",
	.begin = flame_begin,
	.event = flame_event,
	.end = flame_end,
};
