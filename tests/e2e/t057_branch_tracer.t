# description: record -t branch: each likely/unlikely outcome as the kernel's branch tracer prints it, [  ok  ] or [ MISS ] func:file:line, under its header; the fork child's own
src=s-branch.c
args=3
flags="pg fentry pfe"
cflags=-DUSERTRACE_PROFILE_BRANCHES
ropts="-t branch"
cmd="replay"
# the pid's width moves the columns: the task without its padding
filter='s/^ *\(\S*\) *\[[0-9]*\] \.\.\.\.\. *[0-9]*\.[0-9]*: /\1 [CPU] ..... TS: /'
---
# tracer: branch
#
#           TASK-PID    CPU#    TIMESTAMP  CORRECT  FUNC:FILE:LINE
#              | |       |          |         |       |
s-branch-T1 [CPU] ..... TS: [ MISS ] check:s-branch.c:23
s-branch-T1 [CPU] ..... TS: [ MISS ] rare:s-branch.c:30
s-branch-T1 [CPU] ..... TS: [  ok  ] check:s-branch.c:23
s-branch-T1 [CPU] ..... TS: [  ok  ] rare:s-branch.c:30
s-branch-T1 [CPU] ..... TS: [  ok  ] check:s-branch.c:23
s-branch-T1 [CPU] ..... TS: [  ok  ] rare:s-branch.c:30
s-branch-T1 [CPU] ..... TS: [ MISS ] always_wrong:s-branch.c:37
s-branch-T2 [CPU] ..... TS: [  ok  ] check:s-branch.c:23
s-branch-T2 [CPU] ..... TS: [  ok  ] check:s-branch.c:23
s-branch-T2 [CPU] ..... TS: [  ok  ] check:s-branch.c:23
s-branch-T2 [CPU] ..... TS: [  ok  ] check:s-branch.c:23
s-branch-T2 [CPU] ..... TS: [  ok  ] check:s-branch.c:23
