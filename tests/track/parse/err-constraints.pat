A {@y: B}
@x {@x: A} {@x: B}
@x {x: A}
@x {@x A}
@x {@x: A, }
@x {@x: A
@x {@x: A} . B
@x {@x: A} B
