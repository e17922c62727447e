# description: signal:* (built-in): signal_generate for raise, kill, sigqueue, pthread_kill (an ignored SIGCHLD says res=1); signal_deliver when the program's handler runs, none on a too small alternate stack
src=s-sigev.c
flags="pg"
ropts="-e 'signal:*'"
cmd="replay -O nocontext-info"
filter='s/pid=[0-9]*/pid=N/; s/sa_handler=[0-9a-f]*/sa_handler=H/'
---
# tracer: nop
#
signal_generate: sig=10 errno=0 code=-6 comm=s-sigev pid=N grp=0 res=0
signal_deliver: sig=10 errno=0 code=-6 sa_handler=H sa_flags=14000000
signal_generate: sig=1 errno=0 code=0 comm=s-sigev pid=N grp=1 res=0
signal_deliver: sig=1 errno=0 code=0 sa_handler=H sa_flags=14000000
signal_generate: sig=12 errno=0 code=-1 comm=s-sigev pid=N grp=1 res=0
signal_deliver: sig=12 errno=0 code=-1 sa_handler=H sa_flags=4000004
signal_generate: sig=17 errno=0 code=0 comm=s-sigev pid=N grp=1 res=1
signal_generate: sig=14 errno=0 code=-6 comm=s-sigev pid=N grp=0 res=0
signal_generate: sig=10 errno=0 code=-6 comm=s-sigev pid=N grp=0 res=0
signal_deliver: sig=10 errno=0 code=-6 sa_handler=H sa_flags=14000000
