# A phone's page (gesture record --device phone): browsers deliver about 60 readings a second, so
# 60 Hz records each one without held rows. Units and each browser's signs are mapped before this
# profile applies (docs/studio.md); change axes here only for a phone held in an unusual way.
name = A phone's page (gesture studio)
match = phone
axes = x y z
rate = 60
