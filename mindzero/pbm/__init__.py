"""Process Belief Model (DEL-ToM §4.2.2): stepwise data and a +/- step classifier.

``data`` holds the belief questions, the DEL-ToM prompt, step splitting and the stepwise dataset
(policy samples and gold/corrupted traces); ``model`` loads and scores a PBM. Training lives in
:mod:`mindzero.train.pbm`, search over traces in :mod:`mindzero.inference.belief_search`.
"""
