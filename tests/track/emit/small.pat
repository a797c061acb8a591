# flags: --variables buffer --cluster-size 8
A.B.?*.A
A.@x.B.@x {@x: C, D}
[inside, B, (0:5)].!A.?+
@x.@y.?+.@x.@y {@x: A, B} {@y: C, D}
