"""Process Belief Model (DEL-ToM §4.2.2): stepwise data, a +/- step classifier and its training.

``data`` holds the belief questions, the DEL-ToM prompt, step splitting and the stepwise dataset
(policy samples and gold/corrupted traces); ``model`` trains and scores. Search over traces lives
in :mod:`mindzero.inference.belief_search`.
"""
