"""WebShop (Yao et al. 2022): a simulated shop with a SQL catalog, shared BM25 search, WebShop's
text-mode pages and its Buy Now reward. See docs/webshop.md."""
