# description: workqueue events of a pool's annotations: queue_work and activate_work at each insert, execute_start and execute_end around each run, as the kernel prints them
src=s-workqueue.c
args=pool
flags="pg fentry"
ropts="-e 'workqueue:*'"
cmd="replay -O nocontext-info"
filter='s/0x[0-9a-f]*/W/g'
---
# tracer: nop
#
workqueue_queue_work: work struct=W function=crunch workqueue=mypool req_cpu=8192 cpu=2
workqueue_activate_work: work struct W function=crunch 
workqueue_queue_work: work struct=W function=crunch workqueue=mypool req_cpu=8192 cpu=2
workqueue_activate_work: work struct W function=crunch 
workqueue_queue_work: work struct=W function=crunch workqueue=mypool req_cpu=8192 cpu=2
workqueue_activate_work: work struct W function=crunch 
workqueue_execute_start: work struct W: function crunch
workqueue_execute_end: work struct W: function crunch
workqueue_execute_start: work struct W: function crunch
workqueue_execute_end: work struct W: function crunch
