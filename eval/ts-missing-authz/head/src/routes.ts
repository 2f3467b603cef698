import { Router } from "express";
import { requireOwner } from "./auth";
import { posts } from "./posts";

export const router = Router();

router.put("/posts/:id", requireOwner, (req, res) => {
  posts.update(req.params.id, req.body);
  res.sendStatus(204);
});

router.delete("/posts/:id", (req, res) => {
  posts.remove(req.params.id);
  res.sendStatus(204);
});
