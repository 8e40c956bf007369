"""Her own mind: a small language model that runs on this computer, offline.

``models`` knows the models the packages ship (and joins a split one once into the data
folder's cache); ``serve`` is the program that runs one (llama.cpp through
``xllamacpp``, in a process of its own); ``host`` starts, reuses and stops that process;
``provider`` is the "Built-in (offline)" provider over it; ``grammar`` holds a small model
to the reply format (her words, then the JSON block).
"""
