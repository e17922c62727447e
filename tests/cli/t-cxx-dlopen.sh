#!/bin/bash
# description: a program that sees C++'s operators only through a library it dlopens (a C main, or a C++ main linked --as-needed, dlopening a C++ library that calls new, delete, throws and catches) runs whole under the default tracer and kmemtrace: new, delete and __cxa_begin_catch are found in the library's own scope, also from its constructors during dlopen
SUITE=cxx-dlopen
. "$(dirname "$0")/lib.sh"

cat > "$W/lib.cc" <<'CXX'
#include <new>
#include <stdexcept>
#include <string>
char *volatile sink;
static std::string made_at_dlopen(40, 'x');	/* new in a constructor, inside dlopen */
__attribute__((noinline)) static void churn(void)
{
	for (int i = 0; i < 3; i++) {
		char *p = new char[100];

		sink = p;
		delete[] p;
	}
}
__attribute__((noinline)) static int odd_news(void)
{
	struct alignas(64) A { char c[64]; };
	A *a = new A;
	char *q = new (std::nothrow) char[10];
	int ok = ((unsigned long)a % 64 == 0) && q;

	delete a;
	delete[] q;
	return ok;
}
__attribute__((noinline)) static void thrower(int n)
{
	if (n > 0)
		throw std::runtime_error("thrown in the library");
}
extern "C" int work(int n)
{
	int s = (int)made_at_dlopen.size() + odd_news();

	churn();
	try {
		thrower(n);
	} catch (const std::exception &e) {
		s += n;
	}
	return s;
}
CXX
cat > "$W/main.c" <<'C'
#include <dlfcn.h>
#include <stdio.h>
int main(int argc, char **argv)
{
	void *h = dlopen(argv[1], RTLD_NOW);
	int (*work)(int);

	(void)argc;
	if (!h) {
		fprintf(stderr, "%s\n", dlerror());
		return 1;
	}
	work = (int (*)(int))dlsym(h, "work");
	printf("work: %d\n", work(10));
	return 0;
}
C
cp "$W/main.c" "$W/main.cc"
g++ -pg -O1 -fPIC -shared -o "$W/libcxx.so" "$W/lib.cc" &&
	gcc -pg -O1 -o "$W/cmain" "$W/main.c" -ldl &&
	g++ -pg -O1 -Wl,--as-needed -o "$W/cxxmain" "$W/main.cc" -ldl ||
	{ not_ok "cannot build"; exit 1; }
if readelf -d "$W/cxxmain" | grep -q 'libstdc++'; then
	not_ok "the C++ main needs libstdc++ itself: nothing tested"
fi

GRAPH='main() {
  _GLOBAL__sub_I_lib.cc();
  work() {
    odd_news();
    churn();
    thrower();
  }
}'
for m in cmain cxxmain; do
	out=$("$W/$m" "$W/libcxx.so" 2>&1)
	[ "$out" = "work: 51" ] && ok "$m untraced: $out" || not_ok "$m untraced: '$out'"
	for t in function_graph kmemtrace; do
		"$UT" record -t $t -o "$W/d.$m.$t" -- "$W/$m" "$W/libcxx.so" > "$W/out" 2> "$W/err"
		rc=$?
		if [ $rc = 0 ] && [ "$(cat "$W/out")" = "work: 51" ] && ! grep -q 'no definition' "$W/err"; then
			ok "$m -t $t: status 0, work: 51"
		else
			not_ok "$m -t $t: status $rc, '$(cat "$W/out")'"
			sed 's/^/# /' "$W/err"
		fi
	done
	# the calls without their CPU and durations: the constructor's, then work()'s
	"$UT" replay -i "$W/d.$m.function_graph" 2>&1 | sed -nE 's/^ [0-9]+\) [^|]*\|  //p' > "$W/out"
	if [ "$(cat "$W/out")" = "$GRAPH" ]; then
		ok "$m: the library's calls in the call graph"
	else
		not_ok "$m: the library's calls in the call graph"
		sed 's/^/# /' "$W/out" | head -20
	fi
	# three new char[100] at one site, each deleted: counted at the library's call site
	"$UT" report --kmem -i "$W/d.$m.kmemtrace" > "$W/out" 2>&1
	if grep -qE '^ +3 +0 +[0-9]+ +300 +[0-9]+ +100 +[0-9.]+ +3 +0 +0  churn\+0x[0-9a-f]+$' "$W/out"; then
		ok "$m: kmemtrace counts new[] at churn"
	else
		not_ok "$m: kmemtrace counts new[] at churn"
		sed 's/^/# /' "$W/out" | head -20
	fi
done
