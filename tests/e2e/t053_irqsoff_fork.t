# description: irqsoff across fork: the child blocks every signal for 8 ms, the parent for 0.2 ms; the maximum is the child's section (its task, its marks, the call inside, its stack; the delay marks as classes: the spin's 1 ms or more, the others under 1 ms, which a loaded machine may stretch within them)
src=s-irqfork.c
flags="pg fentry"
opts="-O2"
ropts="-t irqsoff"
cmd="replay"
filter='s/ on [^ ]*$/ on K/; s/latency: [0-9]* us/latency: L us/; s/CPU#[0-9]*/CPU#C/; s/#P:[0-9]*/#P:N/; s/^\( *\S*-T[0-9]*\) *[0-9]*\([.d]\)/\1 C\2/; s/  *[0-9]\{1,3\}us\(.\): /    Xus\1: /; s/Xus[ +!]: sigprocmask/Xus : sigprocmask/; s/Xus[#*@$]: spin/Xus#: spin/; s/ [0-9][0-9][0-9][0-9][0-9]*us/ Lus/; s/0x[0-9a-f]*/ADDR/'
---
# tracer: irqsoff
#
# irqsoff latency trace v1.1.5 on K
# --------------------------------------------------------------------
# latency: L us, #4/4, CPU#C | (M:preempt VP:0, KP:0, SP:0 HP:0 #P:N)
#    -----------------
#    | task: s-irqfork-T1 (uid:0 nice:0 policy:0 rt_prio:0)
#    -----------------
#  => started at: child_section
#  => ended at:   child_section
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
s-irqfor-T1 Cd....    Xus : sigprocmask <-child_section
s-irqfor-T1 Cd....    Xus#: spin <-child_section
s-irqfor-T1 Cd.... Lus : sigprocmask <-child_section
s-irqfor-T1 Cd.... Lus : <stack trace>
 => child_section
 => main
 => ADDR
 => __libc_start_main
 => _start
