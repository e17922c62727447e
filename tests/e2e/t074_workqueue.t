# description: workqueue: report --workqueue of <usertrace/workqueue.h>'s queues (queue_work in turn over 2 workers, queue_work_on, a queue of 1) and a pool's annotations: the kernel's columns, a line per worker, by CPU
src=s-workqueue.c
flags="pg fentry"
cmd="report --workqueue"
---
# CPU  INSERTED  EXECUTED   NAME
# |      |         |          |

  0     15         15       crunch/0
  0      1          1       io/0

  1     19         19       crunch/1

  2      3          2       mypool/2
