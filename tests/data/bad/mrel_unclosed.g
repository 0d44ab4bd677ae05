people: 3
Mrel: [ (1,2)1
(2,3)-1
