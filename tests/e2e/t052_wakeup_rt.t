# description: wakeup_rt: a SCHED_FIFO thread woken through a condition variable while the waker holds the mutex 2, 5, 3 ms (a SCHED_OTHER thread 8, 12, 1 ms: ignored); the latency trace of the longest wake-up of "rt", 5 ms at least (the 5 ms one; a loaded machine may delay the waker of any by more: its latency is not the test's to decide, only that it is rt's, at least the 5 ms, and its lines: the wake and the waking call on the waker's line, the woken thread in the wake's data, as the kernel's) (needs root for SCHED_FIFO: the program exits 77 otherwise)
src=s-wakeup.c
args="2 8 5 12 3 1"
flags="pg"
opts="-O2"
ropts="-t wakeup_rt"
cmd="replay"
filter='s/ on [^ ]*$/ on K/; s/latency: \([5-9][0-9][0-9][0-9]\|[1-9][0-9][0-9][0-9][0-9][0-9]*\) us/latency: 5NNN us/; s/ 0us[#*@$]: pthread_cond_signal/ 0us#: pthread_cond_signal/; s/CPU#[0-9]*/CPU#C/; s/#P:[0-9]*/#P:N/; s/^\( *\S*-T[0-9]*\) *[0-9]*\([.d]\)/\1 C\2/; s/ *[0-9]*us[ !#+*@$]: <stack/ Tus : <stack/; s/ *\([5-9][0-9][0-9][0-9]\|[1-9][0-9][0-9][0-9][0-9][0-9]*\)us : pthread_cond_wait/ 5NNNus : pthread_cond_wait/; /^ => 0x/d; s/   + \[[0-9]*\] /   + [C] /'
---
# tracer: wakeup_rt
#
# wakeup_rt latency trace v1.1.5 on K
# --------------------------------------------------------------------
# latency: 5NNN us, #4/4, CPU#C | (M:preempt VP:0, KP:0, SP:0 HP:0 #P:N)
#    -----------------
#    | task: rt-T1 (uid:0 nice:0 policy:1 rt_prio:10)
#    -----------------
#  => started at: waker
#  => ended at:   rt_thread
#
#
#                    _------=> CPU#C            
#                   / _-----=> irqs-off/BH-disabled
#                  | / _----=> need-resched    
#                  || / _---=> hardirq/softirq 
#                  ||| / _--=> preempt-depth   
#                  |||| / _-=> migrate-disable 
#                  ||||| /     delay           
#  cmd     pid     |||||| time  |   caller     
#     \   /        ||||||  \    |    /       
s-wakeup-T2 C.....    0us : T2:120:R   + [C] T1: 89:R rt
s-wakeup-T2 C.....    0us#: pthread_cond_signal <-waker
      rt-T1 C..... 5NNNus : pthread_cond_wait <-rt_thread
      rt-T1 C..... Tus : <stack trace>
 => rt_thread
