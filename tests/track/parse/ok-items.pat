# every item kind
A.B.?*.A
A.@x.B.@x
@x.@y.?+.@x.@y {@x: A, B, C, D} {@y: A, B, C, D}
!A.?.B
  [inside, A, (10:20)] . [overlap, @x, 7] . [inside, B] . @x
A.B.@x.C.?+.@x{@x: A, D, E}
?*
r_12.cell_3_4.?+.r_12
# op left out: overlap
[A, (3:4)].[@x].[B].[12, 5]
