# description: preemptoff: the longest preempt_disable section, in the latency format: preempt_disable, then a pthread spin lock held inside (depth 2 in the preempt-depth column), its calls, its end and stack; signal-blocked sections and handlers are not preemptoff's
src=s-irqsoff.c
flags="pg fentry"
opts="-O2"
ropts="-t preemptoff"
cmd="replay"
filter='s/ on [^ ]*$/ on K/; s/latency: [0-9]* us/latency: L us/; s/CPU#[0-9]*/CPU#C/; s/#P:[0-9]*/#P:N/; s/^\( *\S*-T[0-9]*\) *[0-9]*\([.d]\)/\1 C\2/; s/[0-9]*us[ !#+*@$]: /Tus : /; s/0x[0-9a-f]*/ADDR/'
---
# tracer: preemptoff
#
# preemptoff latency trace v1.1.5 on K
# --------------------------------------------------------------------
# latency: L us, #4/4, CPU#C | (M:preempt VP:0, KP:0, SP:0 HP:0 #P:N)
#    -----------------
#    | task: s-irqsoff-T1 (uid:0 nice:0 policy:0 rt_prio:0)
#    -----------------
#  => started at: nopreempt
#  => ended at:   nopreempt
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
s-irqsof-T1 C...1.    Tus : preempt_disable <-nopreempt
s-irqsof-T1 C...2.    Tus : work <-nopreempt
s-irqsof-T1 C...1. Tus : preempt_enable <-nopreempt
s-irqsof-T1 C...1. Tus : <stack trace>
 => preempt_enable
 => nopreempt
 => main
 => ADDR
 => __libc_start_main
 => _start
