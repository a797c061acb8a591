A..B
.A
A.
A.?.
!@x
!?
![inside, A]
! 
@
@-x.A
A B
A.#B
A.b%c
