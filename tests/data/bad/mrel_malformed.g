people: 3
VarErr: 0.5
Names: [V1 V2 V3]
Mrel: [ (1,2)1
(2;3)-1
(3,1)1 ]
