"""ImageNet class knowledge: the 1000-class vocabulary, the WordNet hierarchy
(distances, organisms), the paper's collapsed class mappings and class search.

Plain data and functions over the shipped assets; imports nothing of the
project, the database or the rest of the domain.
"""
