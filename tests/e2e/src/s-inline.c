/* an inlined function in an instrumented caller: -finstrument-functions
 * calls its hooks from the caller's own frame */
static inline __attribute__((always_inline)) int sq(int x) { return x * x; }
__attribute__((noinline)) int f(int x) { return sq(x) + 1; }
__attribute__((noinline)) int g(int x) { return f(x) + f(x + 1); }
int main(void) { return g(2) == 15 ? 0 : 1; }
