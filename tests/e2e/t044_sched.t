# description: sched:sched_process_* and task:* (the collected sched events aside: t-sched.sh) (built-in): exec (the rename of the kernel's exec first, from the name before it: the recorder's for the first program), renames, a thread's creation (a fork event before it runs) and end, fork, the child's exec and exit, as the kernel's events
src=s-sched.c
flags="pg"
ropts="-e 'sched:sched_process_*' -e 'task:*'"
cmd="replay -O nocontext-info"
filter='s/filename=[^ ]*\//filename=/; s/\(pid\|old_pid\|child_pid\)=[0-9]*/\1=N/g'
---
# tracer: nop
#
task_rename: pid=N oldcomm=usertrace newcomm=s-sched oom_score_adj=0
sched_process_exec: filename=s-sched pid=N old_pid=N
task_rename: pid=N oldcomm=s-sched newcomm=parent oom_score_adj=0
sched_process_fork: comm=parent pid=N child_comm=parent child_pid=N
task_rename: pid=N oldcomm=parent newcomm=worker oom_score_adj=0
sched_process_exit: comm=worker pid=N prio=120 group_dead=false
sched_process_fork: comm=parent pid=N child_comm=parent child_pid=N
task_rename: pid=N oldcomm=parent newcomm=s-sched oom_score_adj=0
sched_process_exec: filename=s-sched pid=N old_pid=N
task_rename: pid=N oldcomm=s-sched newcomm=child oom_score_adj=0
sched_process_exit: comm=child pid=N prio=120 group_dead=true
sched_process_exit: comm=parent pid=N prio=120 group_dead=true
