import type { NextFunction, Request, Response } from "express";
import { posts } from "./posts";

export function requireOwner(req: Request, res: Response, next: NextFunction) {
  const post = posts.get(req.params.id);
  if (!post || post.author !== req.user?.id) return res.sendStatus(403);
  next();
}
