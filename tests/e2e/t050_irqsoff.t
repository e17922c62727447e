# description: irqsoff with tracing_thresh: every section over 250 us, in the kernel's latency format: signals blocked twice then unblocked at once (one section; the signal raised meanwhile waits: need-resched 'N' at its end), handlers (hard-irq 'h'), local_irq_save/restore, and a thread's; each with its calls, its end and its stack; the header tells the longest (the thread's)
src=s-irqsoff.c
flags="pg fentry"
opts="-O2"
ropts="-t irqsoff --thresh 250us"
cmd="replay"
filter='s/ on [^ ]*$/ on K/; s/latency: [0-9]* us/latency: L us/; s/CPU#[0-9]*/CPU#C/; s/#P:[0-9]*/#P:N/; s/^\( *\S*-T[0-9]*\) *[0-9]*\([.d]\)/\1 C\2/; s/[0-9]*us[ !#+*@$]: /Tus : /; s/0x[0-9a-f]*/ADDR/'
---
# tracer: irqsoff
#
# irqsoff latency trace v1.1.5 on K
# --------------------------------------------------------------------
# latency: L us, #22/22, CPU#C | (M:preempt VP:0, KP:0, SP:0 HP:0 #P:N)
#    -----------------
#    | task: s-irqsoff-T1 (uid:0 nice:5 policy:0 rt_prio:0)
#    -----------------
#  => started at: cli
#  => ended at:   thread
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
s-irqsof-T2 Cd....    Tus : pthread_sigmask <-nested
s-irqsof-T2 Cd....    Tus : work <-nested
s-irqsof-T2 CdN... Tus : sigprocmask <-nested
s-irqsof-T2 CdN... Tus : <stack trace>
 => nested
 => main
 => ADDR
 => __libc_start_main
 => _start
s-irqsof-T2 Cd.h.. Tus : handler <-pthread_sigmask
s-irqsof-T2 Cd.h.. Tus : handler <-sig_handler
s-irqsof-T2 Cd.h.. Tus : work <-sig_handler
s-irqsof-T2 Cd.h.. Tus : handler <-pthread_sigmask
s-irqsof-T2 Cd.h.. Tus : <stack trace>
 => ADDR
 => pthread_sigmask
 => sigprocmask
 => nested
 => main
 => ADDR
 => __libc_start_main
 => _start
s-irqsof-T2 Cd.... Tus : __ut_irq_save <-cli
s-irqsof-T2 Cd.... Tus : work <-cli
s-irqsof-T2 Cd.... Tus : __ut_irq_restore <-main
s-irqsof-T2 Cd.... Tus : <stack trace>
 => __ut_irq_restore
 => main
 => ADDR
 => __libc_start_main
 => _start
s-irqsof-T2 Cd.h.. Tus : handler <-ADDR
s-irqsof-T2 Cd.h.. Tus : handler <-sig_handler
s-irqsof-T2 Cd.h.. Tus : work <-sig_handler
s-irqsof-T2 Cd.h.. Tus : handler <-ADDR
s-irqsof-T2 Cd.h.. Tus : <stack trace>
 => ADDR
 => ADDR
 => raise
 => main
 => ADDR
 => __libc_start_main
 => _start
s-irqsof-T1 Cd.... Tus : __ut_irq_save <-cli
s-irqsof-T1 Cd.... Tus : work <-cli
s-irqsof-T1 Cd.... Tus : __ut_irq_restore <-thread
s-irqsof-T1 Cd.... Tus : <stack trace>
 => __ut_irq_restore
 => thread
 => ADDR
 => ADDR
