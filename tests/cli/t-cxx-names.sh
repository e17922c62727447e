#!/bin/bash
# description: C++ names as a user meets them: a template function is named without its return type (ns::twice<int>, not int ns::twice<int>), and a filter written as replay prints a C++ name ('ns::*', 'twice') is refused with the ELF names it meant
SUITE=cxx-names
. "$(dirname "$0")/lib.sh"

cat > "$W/app.cc" <<'CXX'
namespace ns {
template <class T> __attribute__((noinline)) T twice(T x) { return x + x; }
template <class T> __attribute__((noinline)) unsigned long len(T x) { return sizeof(x); }
struct W {
	int v;
	__attribute__((noinline)) operator int() const { return v; }
};
__attribute__((noinline)) bool operator<(const W &a, const W &b) { return a.v < b.v; }
}
volatile int sink;
int main()
{
	ns::W a{1}, b{2};
	sink = ns::twice(3) + (int)ns::len(2.0) + (a < b) + (int)a;
	return 0;
}
CXX
g++ -pg -O2 -o "$W/app" "$W/app.cc" || exit 1

"$UT" record -o "$W/d" -- "$W/app" 2> "$W/err" || { not_ok "record"; sed 's/^/# /' "$W/err"; }
"$UT" report -i "$W/d" -s name | perl -lane 'print join " ", @F[11..$#F] if $. > 2' > "$W/names"
# the names as a function tracer gives them: no return type, no parameters
printf '%s\n' main 'ns::W::operator int' 'ns::len<double>' 'ns::operator<' 'ns::twice<int>' > "$W/want"
if diff "$W/want" "$W/names" > "$W/diff"; then
	ok "names without return type or parameters"
else
	not_ok "names"; sed 's/^/# /' "$W/diff"
fi
"$UT" replay -i "$W/d" > "$W/out"
grep -q '|    ns::twice<int>();$' "$W/out" && grep -q '|    ns::W::operator int();$' "$W/out" &&
	grep -q '|    ns::len<double>();$' "$W/out" && ok "replay: ns::twice<int>, ns::W::operator int" ||
	{ not_ok "replay"; sed 's/^/# /' "$W/out"; }

# the filters take ELF names; the demangled one is refused, with the names it meant
expect 2 "^usertrace: 'ns::twice\\*' names 1 C\\+\\+ function of $W/app as replay prints it, but the filters take ELF \\(mangled\\) names, as available_filter_functions lists them: _ZN2ns5twiceIiEET_S1_$" -- \
	"$UT" record -o "$W/d2" -F 'ns::twice*' -- "$W/app"
expect 2 "^usertrace: 'ns::\\*' names 4 C\\+\\+ functions of $W/app as replay prints them" -- \
	"$UT" record -o "$W/d2" -G 'ns::*' -- "$W/app"
for m in _ZN2ns5twiceIiEET_S1_ _ZN2ns3lenIdEEmT_ _ZNK2ns1WcviEv _ZN2nsltERKNS_1WES2_; do
	grep -q "$m" "$W/err" && ok "-G 'ns::*' names $m" || { not_ok "-G 'ns::*': $m"; sed 's/^/# /' "$W/err"; }
done
# not a C++ name: the dlopen hint, as before
expect 2 "^usertrace: if 'nosuch' is in a library the program loads with dlopen" -- \
	"$UT" record -o "$W/d2" -F nosuch -- "$W/app"
# the ELF name works
"$UT" record -o "$W/d3" -F '_ZN2ns5twice*' -- "$W/app" 2> "$W/err"
[ "$("$UT" report -i "$W/d3" | awk 'NR > 2 { print $NF }')" = "ns::twice<int>" ] &&
	ok "-F by ELF name: ns::twice<int> alone" || { not_ok "-F by ELF name"; sed 's/^/# /' "$W/err"; }
echo "1..$n"
