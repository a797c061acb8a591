# flags: --variables expand --broadcast
A.@x.?*.@x {@x: B, C}
A.B.C
[overlap, @x, (7:9)].!C {@x: A, B}
