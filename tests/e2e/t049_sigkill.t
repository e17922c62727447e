# description: sched_process_exit of processes killed by signals (SIGKILL: the parent's wait writes it for each thread, the leader's group_dead last), task_rename at exec (before sched_process_exec, as the kernel's exec), signal_generate for kill(0) and killpg (one per process of the group, newest first, res=1 where ignored), none for failed sends; as the kernel's events for the same program
src=s-sigkill.c
flags="pg"
ropts="-e 'sched:sched_process_*' -e 'task:*' -e 'signal:signal_generate'"
cmd="replay -O nocontext-info"
filter='s/filename=[^ ]*\//filename=/; s/\(pid\|old_pid\|child_pid\)=[0-9]*/\1=N/g'
---
# tracer: nop
#
task_rename: pid=N oldcomm=usertrace newcomm=s-sigkill oom_score_adj=0
sched_process_exec: filename=s-sigkill pid=N old_pid=N
task_rename: pid=N oldcomm=s-sigkill newcomm=parent oom_score_adj=0
sched_process_fork: comm=parent pid=N child_comm=parent child_pid=N
task_rename: pid=N oldcomm=parent newcomm=c1 oom_score_adj=0
sched_process_fork: comm=c1 pid=N child_comm=c1 child_pid=N
task_rename: pid=N oldcomm=c1 newcomm=c1t oom_score_adj=0
sched_process_fork: comm=parent pid=N child_comm=parent child_pid=N
task_rename: pid=N oldcomm=parent newcomm=s-sigkill oom_score_adj=0
sched_process_exec: filename=s-sigkill pid=N old_pid=N
signal_generate: sig=10 errno=0 code=0 comm=s-sigkill pid=N grp=1 res=0
signal_generate: sig=10 errno=0 code=0 comm=c1 pid=N grp=1 res=1
signal_generate: sig=10 errno=0 code=0 comm=parent pid=N grp=1 res=0
signal_generate: sig=18 errno=0 code=0 comm=s-sigkill pid=N grp=1 res=1
signal_generate: sig=18 errno=0 code=0 comm=c1 pid=N grp=1 res=1
signal_generate: sig=18 errno=0 code=0 comm=parent pid=N grp=1 res=1
signal_generate: sig=9 errno=0 code=0 comm=c1 pid=N grp=1 res=0
sched_process_exit: comm=c1t pid=N prio=120 group_dead=false
sched_process_exit: comm=c1 pid=N prio=120 group_dead=true
signal_generate: sig=15 errno=0 code=0 comm=s-sigkill pid=N grp=1 res=0
sched_process_exit: comm=s-sigkill pid=N prio=120 group_dead=true
sched_process_exit: comm=parent pid=N prio=120 group_dead=true
