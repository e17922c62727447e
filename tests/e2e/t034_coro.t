# description: a coroutine scheduler on swapcontext/makecontext/setcontext: each resumed coroutine nests under the call that resumed it
src=s-coro.c
cmd="replay -O nofuncgraph-cpu"
filter='s/^.*[0-9] us *|/ DUR |/; s/^ *|/ - |/'
---
# tracer: function_graph
#
#  DURATION                  FUNCTION CALLS
#   |   |                     |   |   |   |
 - |  main() {
 DUR |    coro_init();
 DUR |    coro_init();
 DUR |    coro_init();
 - |    schedule() {
 - |      coro_resume() {
 - |        coro_main() {
 - |          ping() {
 DUR |            work();
 DUR |            coro_yield();
 DUR |          }
 DUR |        }
 DUR |      }
 - |      coro_resume() {
 - |        coro_main() {
 - |          pong() {
 DUR |            work();
 DUR |            coro_yield();
 DUR |          }
 DUR |        }
 DUR |      }
 - |      coro_resume() {
 - |        coro_main() {
 - |          ping() {
 DUR |            coro_yield();
 DUR |            work();
 - |            coro_transfer() {
 - |              coro_main() {
 - |                pong() {
 DUR |                  coro_yield();
 DUR |                  work();
 DUR |                  coro_yield();
 DUR |                }
 DUR |              }
 DUR |            }
 DUR |          }
 DUR |        }
 DUR |      }
 - |      coro_resume() {
 - |        coro_main() {
 - |          pong() {
 DUR |            coro_yield();
 DUR |          }
 DUR |        }
 DUR |      }
 - |      coro_resume() {
 - |        coro_main() {
 - |          ping() {
 DUR |            coro_transfer();
 DUR |            work();
 DUR |          }
 DUR |        }
 DUR |      }
 DUR |      coro_resume();
 DUR |    }
 - |    consume() {
 - |      gen_next() {
 - |        coro_resume() {
 - |          coro_main() {
 - |            gen_body() {
 DUR |              coro_yield();
 DUR |            }
 DUR |          }
 DUR |        }
 DUR |      }
 DUR |      work();
 - |      gen_next() {
 - |        coro_resume() {
 - |          coro_main() {
 - |            gen_body() {
 DUR |              coro_yield();
 DUR |              coro_yield();
 DUR |            }
 DUR |          }
 DUR |        }
 DUR |      }
 DUR |      work();
 - |      gen_next() {
 - |        coro_resume() {
 - |          coro_main() {
 - |            gen_body() {
 DUR |              coro_yield();
 DUR |            }
 DUR |          }
 DUR |        }
 DUR |      }
 DUR |    }
 - |    again() {
 DUR |      work();
 DUR |      work();
 DUR |      work();
 DUR |    }
 DUR |  }
