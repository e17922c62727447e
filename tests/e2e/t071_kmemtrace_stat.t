# description: kmemtrace: report --kmem, the exact counts per call site (hits, bytes given and asked, per hit, fragmentation, frees, live blocks and bytes: the malloc and the mapping leaked) and the total
src=s-kmemtrace.c
flags="pg fentry"
ropts="-t kmemtrace"
cmd="report --kmem"
filter='s/+0x[0-9a-f]*$//'
---
#     HITS  FAILED    BYTES_ALLOC      BYTES_REQ  ALLOC/HIT    REQ/HIT   FRAG%     FREES  LIVE_BLOCKS     LIVE_BYTES  CALL_SITE
#        |       |              |              |          |          |       |         |            |              |  |
         1       0          12288          10000      12288      10000   18.62         1            0              0  anon
         1       0           8192           5000       8192       5000   38.96         0            1           8192  anon
         1       0            200            200        200        200    0.00         1            0              0  grow
         1       0            104            100        104        100    3.85         0            1            104  leak
         3       0             72             30         24         10   58.33         3            0              0  small
         1       0             40             40         40         40    0.00         1            0              0  grow
         1       0             40             32         40         32   20.00         1            0              0  zeroed
         9       0          20936          15402       2326       1711   26.43         7            2           8296  [total]
# 1 process image(s); 2 anonymous mapping(s) counted
