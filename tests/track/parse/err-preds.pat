[near, A]
[inside A]
[inside, ]
[inside, A, x]
[inside, A, (1:)]
[inside, A, (9:3)]
[inside, A, 4294967296]
[inside, A, 5
[inside, A, (1:5]
[overlap, @, 3]
[
[]
