"""(filled by later issues)"""
