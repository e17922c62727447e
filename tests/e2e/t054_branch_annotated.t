# description: likely/unlikely profiler (-DUSERTRACE_PROFILE_BRANCHES): report --branch is trace_stat/branch_annotated summed over the processes (a fork child counts from zero: check is 9+5 correct, not 9+9+5), sorted as the kernel's (highest percent incorrect first, X for a site never taken)
src=s-branch.c
args=10
flags="pg fentry cyg pfe"
cflags=-DUSERTRACE_PROFILE_BRANCHES
cmd="report --branch"
---
 correct incorrect  %        Function                  File              Line
 ------- ---------  -        --------                  ----              ----
       0        1 100 always_wrong                   s-branch.c           37
       7        3  30 rare                           s-branch.c           30
      14        1   6 check                          s-branch.c           23
       0        0   X never                          s-branch.c           42
