# description: the all-if profiler at -O2: gcc lays the sites out in reverse, and branch_all follows the section as the kernel's does
src=s-branch.c
args=10
flags="pg cyg"
opts=-O2
cflags=-DUSERTRACE_PROFILE_ALL_BRANCHES
cmd="report --branch"
---
==> trace_stat/branch_annotated <==
 correct incorrect  %        Function                  File              Line
 ------- ---------  -        --------                  ----              ----
       0        1 100 always_wrong                   s-branch.c           37
       7        3  30 rare                           s-branch.c           30
      14        1   6 check                          s-branch.c           23
       0        0   X never                          s-branch.c           42

==> trace_stat/branch_all <==
   miss      hit    %        Function                  File              Line
 ------- ---------  -        --------                  ----              ----
       0        1 100 main                           s-branch.c           63
       1        1  50 main                           s-branch.c           58
       1        0   0 main                           s-branch.c           55
       7        3  30 rare                           s-branch.c           30
       1       14  93 check                          s-branch.c           23
