print("kindred")
