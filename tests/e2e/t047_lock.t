# description: lock:* (built-in): contention_begin/end around a mutex and a rwlock another thread holds (MUTEX, READ), and an error-checking mutex relocked (ret=35, EDEADLK); no event for a lock taken at once
src=s-lock.c
flags="pg"
ropts="-e 'lock:*'"
cmd="replay -O nocontext-info"
filter='s/^\(contention_[a-z]*: \)0x[0-9a-f]*/\1L/'
---
# tracer: nop
#
contention_begin: L (flags=MUTEX)
contention_end: L (ret=0)
contention_begin: L (flags=READ)
contention_end: L (ret=0)
contention_begin: L (flags=MUTEX)
contention_end: L (ret=35)
